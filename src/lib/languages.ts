// Display names of the content languages a workspace can analyse, from the browser's own locale data.
import { workspaceLanguages, type WorkspaceLanguage } from '../contract/workspaces';

const english = new Intl.DisplayNames(['en'], { type: 'language' });

/** "Korean (한국어)": the English name for everyone, the language's own name for its speakers. */
export function languageLabel(code: WorkspaceLanguage): string {
  const name = english.of(code) ?? code;
  if (code === 'en') return name;
  const native = new Intl.DisplayNames([code], { type: 'language' }).of(code);
  return native && native !== name ? `${name} (${native})` : name;
}

export const languageOptions = workspaceLanguages.map((code) => ({ code, label: languageLabel(code) }));
