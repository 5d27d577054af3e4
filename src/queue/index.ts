export * from './queue';
export { InProcessJobQueue, type InProcessQueueOptions } from './in-process';
export { BullJobQueue, MAX_STALLED_COUNT, PURCHASE_QUEUE_NAME, type BullJobQueueOptions } from './bullmq';
export { watchBacklog, type BacklogWatch } from './backlog';
