// The built-in provider's test cards: like a card provider's test mode, it takes no real card, and each test number
// behaves in one known way. Only the brand, the last four digits and the behaviour are kept, never the number.

type CardBehaviour = 'succeed' | 'decline' | 'authenticate';

export interface TestCard {
  number: string;
  brand: string;
  behaviour: CardBehaviour;
  /** What the provider says when it declines. */
  declineMessage?: string;
  label: string;
}

export const TEST_CARDS: TestCard[] = [
  { number: '4242424242424242', brand: 'visa', behaviour: 'succeed', label: 'Succeeds' },
  { number: '5555555555554444', brand: 'mastercard', behaviour: 'succeed', label: 'Succeeds (Mastercard)' },
  {
    number: '4000000000000002',
    brand: 'visa',
    behaviour: 'decline',
    declineMessage: 'Your card was declined.',
    label: 'Declined',
  },
  {
    number: '4000000000009995',
    brand: 'visa',
    behaviour: 'decline',
    declineMessage: 'Your card has insufficient funds.',
    label: 'Declined: insufficient funds',
  },
  {
    number: '4000002500003155',
    brand: 'visa',
    behaviour: 'authenticate',
    label: 'Asks for a confirmation step (3-D Secure)',
  },
];

/** The Luhn checksum every card number carries. */
function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export interface CardForm {
  number: string;
  expiry: string;
  cvc: string;
  name: string;
}

export type CardCheck =
  | { ok: true; card: TestCard; last4: string; expMonth: number; expYear: number }
  | { ok: false; field: 'number' | 'expiry' | 'cvc' | 'name'; message: string };

/** The form as a card provider checks it before trying the card; `now` decides whether the expiry has passed. */
export function checkCardForm(form: CardForm, now = new Date()): CardCheck {
  const number = form.number.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) {
    return { ok: false, field: 'number', message: 'Your card number is invalid.' };
  }
  const expiry = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec(form.expiry.trim());
  const expMonth = expiry ? Number(expiry[1]) : 0;
  const expYear = expiry ? (expiry[2]!.length === 2 ? 2000 + Number(expiry[2]) : Number(expiry[2])) : 0;
  if (!expiry || expMonth < 1 || expMonth > 12) {
    return { ok: false, field: 'expiry', message: "Your card's expiry date is incomplete (MM / YY)." };
  }
  const endOfMonth = Date.UTC(expYear, expMonth, 1);
  if (endOfMonth <= now.getTime()) {
    return { ok: false, field: 'expiry', message: "Your card's expiry date is in the past." };
  }
  if (!/^\d{3,4}$/.test(form.cvc.trim())) {
    return { ok: false, field: 'cvc', message: "Your card's security code is incomplete." };
  }
  if (form.name.trim() === '') {
    return { ok: false, field: 'name', message: 'Enter the name on the card.' };
  }
  const card = TEST_CARDS.find((c) => c.number === number);
  if (!card) {
    return {
      ok: false,
      field: 'number',
      message:
        'This is a test checkout: use one of the test cards listed below; real cards are not accepted.',
    };
  }
  return { ok: true, card, last4: number.slice(-4), expMonth, expYear };
}
