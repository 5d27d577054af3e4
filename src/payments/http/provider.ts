import { z } from 'zod';
import { baseUrl, readEnv, secret, type ProviderRow } from '../settings';
import { HttpProviderAdapter, type HttpProviderSettings } from './adapter';

/** `PAYMENT_PROVIDER=http`: the operator's endpoint and shared secret from `PAYMENT_HTTP_*`. */
export const httpProvider: ProviderRow<HttpProviderSettings> = {
  settings(env, common) {
    const v = readEnv(
      env,
      {
        PAYMENT_HTTP_URL: baseUrl,
        PAYMENT_HTTP_SECRET: secret,
        PAYMENT_HTTP_AUTH: z.enum(['hmac', 'bearer'], 'must be hmac or bearer').default('hmac'),
      },
      'for PAYMENT_PROVIDER=http',
    );
    return {
      url: v.PAYMENT_HTTP_URL,
      secret: v.PAYMENT_HTTP_SECRET,
      auth: v.PAYMENT_HTTP_AUTH,
      callbackUrl: common.callbackUrls.payment,
      refundCallbackUrl: common.callbackUrls.refund,
    };
  },
  create: (settings, options) => new HttpProviderAdapter(settings, options),
};
