// PLACEHOLDER (being written): replaced by the connector.
import type { Connector } from './types';
export const hackernewsSearch: Connector<never> = {
  fetchPage: () => Promise.reject(new Error('not written yet')),
  finish: (c) => c,
};
