export * from './queue';
export { InProcessJobQueue, type InProcessQueueOptions } from './in-process';
export { BullJobQueue, PURCHASE_QUEUE_NAME, type BullJobQueueOptions } from './bullmq';
