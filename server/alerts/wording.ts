// What a fired alert rule says (its event's title and message, which the e-mail, the webhook and the in-app notice
// carry): the window's figures against the rule's condition, and for a spike its drivers in one sentence.
import { SPIKE_HISTORY, type AlertKind, type AlertPeriod } from '@contract/alerts';
import type { SpikeWhy } from './spike-why';

const number = (n: number) => n.toLocaleString('en-US');

/** A fired rule's title and message from its figures (and, for a spike, why: spike-why.ts). */
export function wording(
  rule: { kind: AlertKind; period: AlertPeriod; queryName: string },
  f: Record<string, number | null>,
  why: SpikeWhy | null,
): { title: string; message: string } {
  const when = rule.period === 'hour' ? 'this hour' : 'today';
  const what = `"${rule.queryName}"`;
  if (rule.kind === 'spike')
    return {
      title: `Spike in ${what}`,
      message:
        `${number(f.mentions!)} mentions ${when}, above the spike threshold of ${f.threshold} (the mean ${f.mean} of ` +
        `this ${rule.period} and the ${SPIKE_HISTORY[rule.period]} before it, plus two standard deviations).` +
        (why ? ` Why: ${why.sentence}` : ''),
    };
  if (rule.kind === 'volume')
    return {
      title: `${what} reached ${number(f.threshold!)} mentions`,
      message: `${number(f.mentions!)} mentions ${when}, at least the threshold of ${number(f.threshold!)}.`,
    };
  return {
    title: `Negative sentiment up in ${what}`,
    message:
      `${f.negative_share}% of ${number(f.mentions!)} mentions ${when} are negative, up ${f.points} points from ` +
      `${f.previous_negative_share}% the ${rule.period} before (the rule's threshold: ${f.threshold} points).`,
  };
}
