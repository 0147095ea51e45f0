// PLACEHOLDER (being written): replaced by the connector.
import type { Connector, CredentialTest } from './types';
export const youtubeSearch: Connector<never> = {
  fetchPage: () => Promise.reject(new Error('not written yet')),
  finish: (c) => c,
};
export const youtubeChannel: Connector<never> = {
  fetchPage: () => Promise.reject(new Error('not written yet')),
  finish: (c) => c,
};
export const youtubeTest: CredentialTest = () => Promise.reject(new Error('not written yet'));
