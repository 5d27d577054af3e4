import { Router } from 'express';
import { requireBearer, type AdminCredential } from '../http/secrets';
import { componentLogger } from '../observability/logger';
import type { Database } from '../records/database';
import { dailyReport, hourlySales, ReportInputError } from './daily';
import { reportCsv } from './csv';
import { maskForDisplay } from '../purchases/care/masking';

const log = componentLogger('admin');

export interface ReportRoutesOptions {
  db: Database;
  credentials: string | readonly AdminCredential[];
  /** The zone the day is local to (`TZ`). */
  timeZone: string;
  /** The floats' currency (`AGENT_CURRENCY`). */
  floatCurrency: string;
}

/**
 * `GET /admin/reports/daily?date=YYYY-MM-DD[&format=csv]` (admin bearer): the day's figures from
 * the system of record (src/reports/daily.ts), as `npm run cli -- report daily` prints them.
 * JSON is masked by the `/admin` answer masking; the CSV is masked here, as it is not JSON,
 * unless `?reveal=true` (which that masking audits first).
 */
export function reportRoutes(options: ReportRoutesOptions): Router {
  const router = Router();
  const admin = Router();
  admin.use(requireBearer(options.credentials));
  admin.get('/daily', async (req, res) => {
    const { date, format } = req.query;
    if (format !== undefined && format !== 'csv' && format !== 'json') {
      res.status(400).json({ error: 'invalid_request', field: 'format', message: 'format is csv or json' });
      return;
    }
    try {
      const report = await dailyReport(options.db, {
        date: typeof date === 'string' ? date : '',
        timeZone: options.timeZone,
        floatCurrency: options.floatCurrency,
      });
      if (format !== 'csv') {
        res.json(report);
        return;
      }
      const shown = req.query.reveal === 'true' ? report : (maskForDisplay(report) as typeof report);
      res
        .type('text/csv')
        .set('Content-Disposition', `attachment; filename="report-${report.date}.csv"`)
        .send(reportCsv(shown));
    } catch (error) {
      if (error instanceof ReportInputError) {
        res.status(400).json({ error: 'invalid_request', field: error.field, message: error.message });
        return;
      }
      log.error('daily report failed', { error });
      res.status(500).json({ error: 'internal', message: 'the report failed; see the logs' });
    }
  });
  // The day's sales per local hour and product (the console's chart).
  admin.get('/hourly', async (req, res) => {
    try {
      const date = typeof req.query.date === 'string' ? req.query.date : '';
      res.json(await hourlySales(options.db, { date, timeZone: options.timeZone }));
    } catch (error) {
      if (error instanceof ReportInputError) {
        res.status(400).json({ error: 'invalid_request', field: error.field, message: error.message });
        return;
      }
      log.error('hourly report failed', { error });
      res.status(500).json({ error: 'internal', message: 'the report failed; see the logs' });
    }
  });
  router.use('/admin/reports', admin);
  return router;
}
