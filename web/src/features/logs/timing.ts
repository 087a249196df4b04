/** Tag colours: total time and first-token time. */
export const totalTimeColor = (seconds: number) =>
  seconds < 101 ? 'green' : seconds < 300 ? 'orange' : 'red';
export const firstTokenColor = (seconds: number) => (seconds < 3 ? 'green' : seconds < 10 ? 'orange' : 'red');

/** Completion tokens per second of total time; undefined when there is nothing to divide. */
export function speed(completionTokens: number, seconds: number): number | undefined {
  if (!(seconds > 0) || !(completionTokens > 0)) return undefined;
  return Math.round((completionTokens / seconds) * 10) / 10;
}
