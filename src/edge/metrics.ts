import { MetricsRegistry } from "../core/metrics";

/**
 * The worker's metrics registry. It lives in the isolate's memory: `/metrics`
 * reports what this isolate (and the Durable Objects sharing it) has seen since it
 * started, the usual model for Workers; scrape often and aggregate in Prometheus.
 */
export const edgeMetrics = new MetricsRegistry();
