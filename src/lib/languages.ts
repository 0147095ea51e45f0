// Display names of the content languages a workspace can analyse, from the browser's own locale data. Made on first
// use, not when the module is evaluated: each locale's display names load that locale's data (tens of milliseconds on
// a phone for all of them), and this module is part of the dashboards' code, which rarely names a language.
import { workspaceLanguages, type WorkspaceLanguage } from '@contract/workspaces';

const names = new Map<string, Intl.DisplayNames>();
function displayNames(locale: string): Intl.DisplayNames {
  let found = names.get(locale);
  if (!found) {
    found = new Intl.DisplayNames([locale], { type: 'language' });
    names.set(locale, found);
  }
  return found;
}

/** "Korean (한국어)": the English name for everyone, the language's own name for its speakers. */
export function languageLabel(code: WorkspaceLanguage): string {
  const name = displayNames('en').of(code) ?? code;
  if (code === 'en') return name;
  const native = displayNames(code).of(code);
  return native && native !== name ? `${name} (${native})` : name;
}

let options: ReadonlyArray<{ code: WorkspaceLanguage; label: string }> | null = null;
/** Every language a workspace can analyse, with its label, in the contract's order. */
export function languageOptions(): ReadonlyArray<{ code: WorkspaceLanguage; label: string }> {
  options ??= workspaceLanguages.map((code) => ({ code, label: languageLabel(code) }));
  return options;
}
