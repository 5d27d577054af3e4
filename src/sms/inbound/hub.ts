import type { DeliveryReport } from '../../messaging/sender';
import { componentLogger } from '../../observability/logger';
import type { InboundSink } from '../../messaging/sender';
import type { InboundSms } from './types';

const log = componentLogger('sms-inbound');

/** Messages kept while nothing is connected yet (the link binds before the channel starts). */
const HELD_MAX = 1000;

/**
 * The hand-over point between a driver's link (SMPP deliver_sm) and the inbound path, which is
 * built after the money path: what arrives before `connect` is held, then passed on.
 */
export class InboundHub implements InboundSink {
  private sink: InboundSink | null = null;
  private held: (() => void)[] = [];

  connect(sink: InboundSink): void {
    this.sink = sink;
    for (const pass of this.held.splice(0)) pass();
  }

  message(sms: InboundSms): void {
    this.pass(() => this.sink!.message(sms));
  }

  delivery(report: DeliveryReport): void {
    this.pass(() => this.sink!.delivery(report));
  }

  private pass(fn: () => void): void {
    if (this.sink) fn();
    else if (this.held.length < HELD_MAX) this.held.push(fn);
    else log.warn('inbound sms arrived before the channel started and the hold is full: dropped');
  }
}
