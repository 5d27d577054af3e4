import { africasTalkingAdapter } from './africastalking/adapter';
import type { UssdAdapter } from './types';

/** Every USSD aggregator the gateway serves at `POST /ussd/<name>`: one line each. */
export const ussdAdapters: UssdAdapter[] = [africasTalkingAdapter];
