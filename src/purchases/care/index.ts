export * from './care';
export * from './audit';
export { careKeys } from './keys';
export { careRoutes } from './routes';
export { adminResponses, maskForDisplay } from './masking';
export * from './settings';
