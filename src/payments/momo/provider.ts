import { baseUrl, readEnv, text, type ProviderRow } from '../settings';
import { MomoAdapter, type MomoSettings } from './adapter';

const WHY = 'for PAYMENT_PROVIDER=momo';

/** `PAYMENT_PROVIDER=momo`: the Collection (and, for refunds, Disbursement) credentials from `MOMO_*`. */
export const momoProvider: ProviderRow<MomoSettings> = {
  settings(env, common) {
    const v = readEnv(
      env,
      {
        MOMO_BASE_URL: baseUrl,
        MOMO_API_USER: text,
        MOMO_API_KEY: text,
        MOMO_SUBSCRIPTION_KEY: text,
        MOMO_TARGET_ENVIRONMENT: text.regex(
          /^[a-z0-9]+$/,
          'must be sandbox or the value MTN issued (e.g. mtnuganda)',
        ),
        MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: text.optional(),
        MOMO_DISBURSEMENT_API_USER: text.optional(),
        MOMO_DISBURSEMENT_API_KEY: text.optional(),
      },
      WHY,
    );
    if (
      (v.MOMO_DISBURSEMENT_API_USER || v.MOMO_DISBURSEMENT_API_KEY) &&
      !v.MOMO_DISBURSEMENT_SUBSCRIPTION_KEY
    )
      readEnv(env, { MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: text }, 'with MOMO_DISBURSEMENT_API_USER/KEY');
    return {
      baseUrl: v.MOMO_BASE_URL,
      apiUser: v.MOMO_API_USER,
      apiKey: v.MOMO_API_KEY,
      subscriptionKey: v.MOMO_SUBSCRIPTION_KEY,
      targetEnvironment: v.MOMO_TARGET_ENVIRONMENT,
      callbackUrl: common.callbackUrls.payment,
      refundCallbackUrl: common.callbackUrls.refund,
      disbursement: v.MOMO_DISBURSEMENT_SUBSCRIPTION_KEY
        ? {
            subscriptionKey: v.MOMO_DISBURSEMENT_SUBSCRIPTION_KEY,
            apiUser: v.MOMO_DISBURSEMENT_API_USER ?? v.MOMO_API_USER,
            apiKey: v.MOMO_DISBURSEMENT_API_KEY ?? v.MOMO_API_KEY,
          }
        : undefined,
      currency: common.currency,
    };
  },
  create: (settings, options) => new MomoAdapter(settings, options),
};
