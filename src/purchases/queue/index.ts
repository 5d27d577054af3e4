export * from './queue';
export { InProcessJobQueue, type InProcessQueueOptions } from './in-process';
export { BullJobQueue, type BullJobQueueOptions } from './bullmq';
