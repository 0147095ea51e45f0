// The wizard's draft and its field errors, shared by the three steps. The draft lives in sessionStorage so a reload
// (or a step back) loses nothing; it is dropped once the workspace exists or the user joined one.
import { createContext, use, useState, type ReactNode } from 'react';
import * as z from 'zod/mini';
import { workspaceLanguageSchema } from '@contract/workspaces';

export const WIZARD_DRAFT_KEY = 'murmur:workspace-creation-draft';

const draftSchema = z.object({
  name: z.string(),
  language: z.union([workspaceLanguageSchema, z.literal('')]),
  /** Null until the user edits it: the step shows the name from their profile meanwhile. */
  first_name: z.nullable(z.string()),
  last_name: z.nullable(z.string()),
});
export type WizardDraft = z.infer<typeof draftSchema>;

export type WizardField = keyof WizardDraft;
export type WizardErrors = Partial<Record<WizardField, string>>;

export const STEPS = [
  { segment: 'name', label: 'Name', to: '/workspace/create/name' },
  { segment: 'language', label: 'Language', to: '/workspace/create/language' },
  { segment: 'user-info', label: 'About you', to: '/workspace/create/user-info' },
] as const;

/** The step where each field is edited, so an error about it can send the user there. */
export const STEP_OF_FIELD = {
  name: '/workspace/create/name',
  language: '/workspace/create/language',
  first_name: '/workspace/create/user-info',
  last_name: '/workspace/create/user-info',
} as const satisfies Record<WizardField, string>;

/** The browser's language when the product offers it, so most people just press Next. */
function browserLanguage(): WizardDraft['language'] {
  const code = (typeof navigator === 'undefined' ? '' : navigator.language).slice(0, 2).toLowerCase();
  const parsed = z.safeParse(workspaceLanguageSchema, code);
  return parsed.success ? parsed.data : '';
}

const emptyDraft = (): WizardDraft => ({
  name: '',
  language: browserLanguage(),
  first_name: null,
  last_name: null,
});

function readDraft(): WizardDraft {
  try {
    const stored = sessionStorage.getItem(WIZARD_DRAFT_KEY);
    if (stored) {
      const parsed = z.safeParse(draftSchema, JSON.parse(stored));
      if (parsed.success) return parsed.data;
    }
  } catch {
    // A corrupted or unreadable draft only costs the user their typing; start afresh.
  }
  return emptyDraft();
}

function writeDraft(draft: WizardDraft | null) {
  try {
    if (draft) sessionStorage.setItem(WIZARD_DRAFT_KEY, JSON.stringify(draft));
    else sessionStorage.removeItem(WIZARD_DRAFT_KEY);
  } catch {
    // Storage full or blocked: the draft still lives in memory for this visit.
  }
}

interface WizardState {
  draft: WizardDraft;
  errors: WizardErrors;
  /** A failure that belongs to no field, shown on the last step. */
  formError: string | null;
  /** Changes one field and clears its error. */
  update: <K extends WizardField>(field: K, value: WizardDraft[K]) => void;
  setErrors: (errors: WizardErrors, formError?: string | null) => void;
  /** Forgets the draft (the workspace exists, or the user joined one). */
  clear: () => void;
}

const WizardContext = createContext<WizardState | null>(null);

export function WizardProvider({ children }: { children: ReactNode }) {
  const [draft, setDraft] = useState(readDraft);
  const [errors, setErrorState] = useState<WizardErrors>({});
  const [formError, setFormError] = useState<string | null>(null);

  const state: WizardState = {
    draft,
    errors,
    formError,
    update: (field, value) => {
      setDraft((previous) => {
        const next = { ...previous, [field]: value };
        writeDraft(next);
        return next;
      });
      setErrorState((previous) => ({ ...previous, [field]: undefined }));
    },
    setErrors: (next, nextFormError = null) => {
      setErrorState(next);
      setFormError(nextFormError);
    },
    clear: () => {
      writeDraft(null);
      setDraft(emptyDraft());
      setErrorState({});
      setFormError(null);
    },
  };
  return <WizardContext value={state}>{children}</WizardContext>;
}

export function useWizard(): WizardState {
  const state = use(WizardContext);
  if (!state) throw new Error('useWizard must be used inside WizardProvider');
  return state;
}
