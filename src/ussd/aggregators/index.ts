import { africasTalkingAdapter } from './africastalking/adapter';
import { arkeselAdapter } from './arkesel/adapter';
import { cellulantAdapter } from './cellulant/adapter';
import { comvivaAdapter, type ComvivaSettings } from './comviva/adapter';
import { genericAdapter, type GenericMapping } from './generic/adapter';
import { hubtelAdapter } from './hubtel/adapter';
import { infobipAdapter } from './infobip/adapter';
import { naloAdapter } from './nalo/adapter';
import { safaricomAdapter } from './safaricom/adapter';
import type { UssdAdapter } from '../types';

/** What the configurable adapters are built from. */
export interface UssdAdapterSettings {
  comviva?: ComvivaSettings;
  /** `USSD_GENERIC_MAPPING`; without it there is no generic route. */
  genericMapping?: GenericMapping;
}

/** Every USSD aggregator the gateway serves under `/ussd/<name>`: one line each. */
export function ussdAdapters(settings: UssdAdapterSettings = {}): UssdAdapter[] {
  return [
    africasTalkingAdapter,
    hubtelAdapter,
    arkeselAdapter,
    naloAdapter,
    comvivaAdapter(settings.comviva),
    infobipAdapter,
    cellulantAdapter,
    safaricomAdapter,
    ...(settings.genericMapping ? [genericAdapter(settings.genericMapping)] : []),
  ];
}
