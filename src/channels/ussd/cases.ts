import { africasTalkingCases } from './africastalking/cases';
import { arkeselCases } from './arkesel/cases';
import { cellulantCases } from './cellulant/cases';
import { comvivaCases } from './comviva/cases';
import { genericCases } from './generic/cases';
import { hubtelCases } from './hubtel/cases';
import { infobipCases } from './infobip/cases';
import { naloCases } from './nalo/cases';
import { safaricomCases } from './safaricom/cases';
import type { AdapterCases } from './wire-cases';

/** Every adapter's wire cases, for the shared runner and the end-to-end table. */
export const ALL_ADAPTER_CASES: AdapterCases[] = [
  africasTalkingCases,
  hubtelCases,
  arkeselCases,
  naloCases,
  comvivaCases,
  infobipCases,
  cellulantCases,
  safaricomCases,
  genericCases,
];
