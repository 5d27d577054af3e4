import { africasTalkingInbound } from './africastalking/adapter';
import { genericInbound } from './generic/adapter';
import type { InboundSmsAdapter } from './types';

/** Every inbound SMS format the gateway serves at `POST /sms/<path>`: one line each. */
export const inboundSmsAdapters: InboundSmsAdapter[] = [africasTalkingInbound, genericInbound];
