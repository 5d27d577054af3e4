import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { hop, newPhone, startTestGateway } from '../e2e/harness';

/** The composed gateway records into its own metrics and serves them at `GET /metrics`. */

describe('GET /metrics on a running gateway', () => {
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('shows the hop just dialled and the purchase-service calls it made', async () => {
    const reply = await hop(gateway, `metrics-${process.pid}`, newPhone(), '');
    expect(reply.status).toBe(200);
    expect(reply.end).toBe(false);

    const res = await axios.get(`${gateway.url}/metrics`, { responseType: 'text' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(gateway.metrics.registry.contentType);
    const body = String(res.data);
    expect(body).toContain('ussd_hops_total{aggregator="africastalking",end="false"} 1');
    expect(body).toContain('ussd_hop_duration_seconds_count{aggregator="africastalking"} 1');
    expect(body).toMatch(/vas_call_duration_seconds_count\{operation="list_products",outcome="ok"\} [1-9]/);
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ METRICS_TOKEN: 'scrape-token-0123456789' });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('refuses a scrape without the bearer token and serves one with it', async () => {
    const refused = await axios.get(`${gateway.url}/metrics`, { validateStatus: () => true });
    expect(refused.status).toBe(401);
    const ok = await axios.get(`${gateway.url}/metrics`, {
      headers: { Authorization: 'Bearer scrape-token-0123456789' },
      responseType: 'text',
    });
    expect(ok.status).toBe(200);
    expect(String(ok.data)).toContain('# TYPE ussd_hops_total counter');
  });
});
