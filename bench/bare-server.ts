/**
 * The benchmark's baseline: a bare express handler that parses the same Africa's Talking form
 * body and answers a constant screen. Whatever the gateway costs on top of this is ours.
 */
import express from 'express';

const app = express();
app.use(express.urlencoded({ extended: false }));
app.get('/healthz', (_req, res) => {
  res.json({ ok: true });
});
app.post('/ussd/africastalking', (req, res) => {
  const text = String(req.body?.text ?? '');
  res
    .type('text/plain')
    .send(text.split('*').length >= 4 ? 'END Thank you' : 'CON 1. Electricity\n2. Airtime\n3. Water');
});
app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
