// PLACEHOLDER (being written): replaced by the connector.
import type { Connector, CredentialTest } from './types';
export const xSearch: Connector<never> = {
  fetchPage: () => Promise.reject(new Error('not written yet')),
  finish: (c) => c,
};
export const xTest: CredentialTest = () => Promise.reject(new Error('not written yet'));
