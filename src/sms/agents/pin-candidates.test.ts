import { loadLocales } from '../../i18n';
import { parseSmsCommand } from '../commands/grammar';
import { Keywords } from '../commands/keywords';
import { hasPinCandidate, maskPinCandidates } from './pin-candidates';

const keywords = new Keywords(loadLocales());
/** The sender's quote codes in these cases. */
const codes = ['4821', '5932'];

function mask(text: string): string {
  const parsed = parseSmsCommand(text, keywords);
  return maskPinCandidates(text, parsed.ok ? parsed.command : null, codes);
}

describe('PIN candidates in an agent message', () => {
  it.each([
    // Refused by the grammar: every run of 4–6 digits goes.
    ['PIN 418529 12', 'PIN XXXX 12'],
    ['PIN 418529', 'PIN XXXX'],
    ['BAL 418529 now', 'BAL XXXX now'],
    ['SALES 418529 please', 'SALES XXXX please'],
    ['BAL418529', 'BALXXXX'],
    ['BAL ４１８５２９ now', 'BAL XXXX now'],
    ['NO 4821 418529', 'NO XXXX XXXX'],
    ['LANG 7351', 'LANG XXXX'],
    ['ELEC 418529 abc', 'ELEC XXXX abc'],
    ['SELL ELEC 01234567890 1000', 'SELL ELEC 01234567890 XXXX'],
    // Shorter and longer runs are never a PIN.
    ['BAL 123 now', 'BAL 123 now'],
    ['PIN 4185291 12', 'PIN 4185291 12'],
    // Well-formed: what the command needs stays, a PIN typed by mistake goes.
    ['SELL ELEC 01234567890 1000 71234567', 'SELL ELEC 01234567890 1000 71234567'],
    ['SELL ELEC 0123 456 7890 P1000.50 71234567', 'SELL ELEC 0123 456 7890 P1000.50 71234567'],
    ['SELL AIR MASCOM 71234567 10000', 'SELL AIR MASCOM 71234567 10000'],
    ['SELL ELEC 01234567890 1000 71234567 418529', 'SELL ELEC 01234567890 1000 71234567 XXXX'],
    ['ELEC 418529 100', 'ELEC XXXX 100'],
    ['AIR 418529 20', 'AIR XXXX 20'],
    ['TOKEN 01234567890', 'TOKEN 01234567890'],
    ['TOKEN 418529', 'TOKEN XXXX'],
    ['NO 4821', 'NO 4821'],
    ['NO 7351', 'NO XXXX'],
    ['YES 5932', 'YES 5932'],
    ['HELP 418529', 'HELP XXXX'],
    ['BLOCK 418529', 'BLOCK XXXX'],
  ])('%s → %s', (text, masked) => {
    expect(mask(text)).toBe(masked);
  });

  it('tells whether a text has anything to mask', () => {
    expect(['BAL 418529', 'x７３５１', 'SELL ELEC 01234567890 1000 71234567'].map(hasPinCandidate)).toEqual([
      true,
      true,
      true,
    ]);
    expect(['HELP', 'BAL 123', 'ELEC 01234567890 100', 'XXXX'].map(hasPinCandidate)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
