import { bearerMatches, sameSecret } from './secrets';

describe('sameSecret', () => {
  test.each([
    ['s3cret', 's3cret', true],
    ['s3cret', 's3cre', false],
    ['', 's3cret', false],
    ['S3CRET', 's3cret', false],
  ])('%j vs %j → %s', (given, expected, same) => {
    expect(sameSecret(given, expected)).toBe(same);
  });
});

describe('bearerMatches', () => {
  test.each([
    ['Bearer tok', 'tok', true],
    ['bearer  tok ', 'tok', true],
    ['Bearer other', 'tok', false],
    ['tok', 'tok', false],
    [undefined, 'tok', false],
    ['Bearer ', '', false],
  ])('%j with token %j → %s', (header, token, matches) => {
    expect(bearerMatches(header, token)).toBe(matches);
  });
});
