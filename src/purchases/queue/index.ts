export * from './queue';
export { InProcessJobQueue, type InProcessQueueOptions } from './in-process';
export { BullJobQueue, type BullJobQueueOptions } from './bullmq';
export { WorkerJobs, WORKER_CLOSE_GRACE_MS } from './worker-close';
