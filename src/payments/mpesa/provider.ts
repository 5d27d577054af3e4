import { z } from 'zod';
import { baseUrl, readEnv, text, type ProviderRow } from '../settings';
import { MpesaAdapter, type MpesaSettings } from './adapter';

const WHY = 'for PAYMENT_PROVIDER=mpesa';

/** `PAYMENT_PROVIDER=mpesa`: Daraja's credentials and shortcode from `MPESA_*`. */
export const mpesaProvider: ProviderRow<MpesaSettings> = {
  settings(env, common) {
    const v = readEnv(
      env,
      {
        MPESA_BASE_URL: baseUrl,
        MPESA_CONSUMER_KEY: text,
        MPESA_CONSUMER_SECRET: text,
        MPESA_SHORTCODE: text.regex(/^\d{5,7}$/, 'must be the 5 to 7 digit shortcode'),
        MPESA_PASSKEY: text,
        MPESA_TRANSACTION_TYPE: z.enum(['paybill', 'till'], 'must be paybill or till').default('paybill'),
        MPESA_TILL_NUMBER: text.regex(/^\d{5,8}$/, 'must be the till number').optional(),
        MPESA_INITIATOR: text.optional(),
        MPESA_SECURITY_CREDENTIAL: text.optional(),
        MPESA_AMOUNT_DECIMALS: z.enum(['0', '2'], 'must be 0 (Daraja) or 2 (a test double)').default('0'),
      },
      WHY,
    );
    const need = (variable: string, why: string) => readEnv(env, { [variable]: text }, why);
    if (v.MPESA_TRANSACTION_TYPE === 'till' && !v.MPESA_TILL_NUMBER)
      need('MPESA_TILL_NUMBER', 'for MPESA_TRANSACTION_TYPE=till');
    if (v.MPESA_INITIATOR && !v.MPESA_SECURITY_CREDENTIAL)
      need('MPESA_SECURITY_CREDENTIAL', 'with MPESA_INITIATOR (refunds are reversals)');
    if (v.MPESA_SECURITY_CREDENTIAL && !v.MPESA_INITIATOR)
      need('MPESA_INITIATOR', 'with MPESA_SECURITY_CREDENTIAL (refunds are reversals)');
    return {
      baseUrl: v.MPESA_BASE_URL,
      consumerKey: v.MPESA_CONSUMER_KEY,
      consumerSecret: v.MPESA_CONSUMER_SECRET,
      shortcode: v.MPESA_SHORTCODE,
      passkey: v.MPESA_PASSKEY,
      transactionType:
        v.MPESA_TRANSACTION_TYPE === 'till' ? 'CustomerBuyGoodsOnline' : 'CustomerPayBillOnline',
      partyB: v.MPESA_TILL_NUMBER ?? v.MPESA_SHORTCODE,
      callbackUrl: common.callbackUrls.payment,
      refundResultUrl: common.callbackUrls.refund,
      refundTimeoutUrl: common.callbackUrls.refund_timeout,
      initiator: v.MPESA_INITIATOR,
      securityCredential: v.MPESA_SECURITY_CREDENTIAL,
      currency: common.currency ?? 'KES',
      amountDecimals: v.MPESA_AMOUNT_DECIMALS === '2' ? 2 : 0,
    };
  },
  create: (settings, options) => new MpesaAdapter(settings, options),
};
