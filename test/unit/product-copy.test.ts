// What the product says in words to the people who use it: no internal field names in the sentences the dashboards
// show, and the rules stated as a person reads them.
import { describe, expect, it } from 'vitest';
import { EMERGING_RULE } from '@server/social/insights/conversation';
import { WORD_RULE } from '@server/social/insights/words';

/** An identifier of the API (words_sample, emerging_rule): snake case, which no sentence of the product uses. */
const FIELD_NAME = /\b[a-z]+_[a-z_]+\b/;

describe('the dashboards’ rules as shown', () => {
  it('name no field of the API', () => {
    for (const rule of [EMERGING_RULE, WORD_RULE]) expect(rule).not.toMatch(FIELD_NAME);
  });
});
