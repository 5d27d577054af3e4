/**
 * The SMS a retailer's registration owes: once decided, the dealer is told (the
 * retailer added, or not), and an approved retailer is told it is registered under its dealer and
 * how it gets its first PIN — never the PIN itself (an SMS body is stored and forwarded). One per
 * registration, decision and number: the ids name them, so a decision asked again sends nothing
 * more.
 */
import type { Registration } from './registrations';
import type { AgentRegistry } from './registry';
import { transliterate, type Locales } from '../i18n';

export type RegistrationTeller = (registration: Registration) => Promise<void>;

export function registrationTeller(options: {
  registry: Pick<AgentRegistry, 'get'>;
  locales: Locales;
  /** Queue one SMS; `id` sends it once. */
  send(sms: { id: string; to: string; message: string }): Promise<void>;
}): RegistrationTeller {
  return async (registration) => {
    if (registration.state === 'pending') return;
    const dealer = await options.registry.get(registration.dealerMsisdn);
    const params = { name: registration.name, number: registration.msisdn };
    const stem = `registration:${registration.id}:${registration.state}`;
    if (dealer)
      await options.send({
        id: `${stem}:dealer`,
        to: dealer.msisdn,
        message: transliterate(
          options.locales.t(
            dealer.language,
            registration.state === 'approved' ? 'sms.agent.retailerAdded' : 'sms.agent.retailerRefused',
            params,
          ),
        ),
      });
    if (registration.state !== 'approved') return;
    await options.send({
      id: `${stem}:retailer`,
      to: registration.msisdn,
      message: transliterate(
        options.locales.t(registration.language, 'sms.agent.retailerWelcome', {
          dealer: dealer?.name ?? registration.dealerMsisdn,
        }),
      ),
    });
  };
}
