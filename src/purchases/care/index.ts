export * from './care';
export * from './audit';
export { SqlAuditTrail } from './audit-sql';
export { careRoutes } from './routes';
export { adminResponses, maskForDisplay } from './masking';
export * from './settings';
