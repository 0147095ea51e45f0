// Product analytics (spec §1): third-party traffic, so the transport is pluggable and the product does not depend on it.

export interface PageViewEvent {
  type: 'PageView';
  path: string;
  workspaceId: string;
  domain: string;
  location: string;
  title: string;
  url: string;
}

export type AnalyticsTransport = (event: PageViewEvent) => void;

/** The default transport: a DOM event any vendor snippet (or a test) can listen to. */
export const domEventTransport: AnalyticsTransport = (event) => {
  window.dispatchEvent(new CustomEvent('murmur:analytics', { detail: event }));
};

export function createAnalytics(transport: AnalyticsTransport) {
  return {
    pageView(path: string, workspaceId: string) {
      transport({
        type: 'PageView',
        path,
        workspaceId,
        domain: window.location.hostname,
        location: window.location.href,
        title: document.title,
        url: window.location.origin + path,
      });
    },
  };
}

export type Analytics = ReturnType<typeof createAnalytics>;
