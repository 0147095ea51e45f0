// PLACEHOLDER (being written): replaced by the connector.
import type { Connector, CredentialTest } from './types';
export const redditSearch: Connector<never> = {
  fetchPage: () => Promise.reject(new Error('not written yet')),
  finish: (c) => c,
};
export const redditSubreddit: Connector<never> = {
  fetchPage: () => Promise.reject(new Error('not written yet')),
  finish: (c) => c,
};
export const redditTest: CredentialTest = () => Promise.reject(new Error('not written yet'));
