import { setLogLevel } from '../src/observability/logger';

// Tests log errors only (processes set the level from LOG_LEVEL; under jest nothing does).
setLogLevel('error');
