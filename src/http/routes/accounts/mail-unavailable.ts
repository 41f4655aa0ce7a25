import { HttpProblem } from '../../problem.js';

/** The answer of a flow that sends mail, on a server that sends none. */
export function mailUnavailable(): HttpProblem {
  return new HttpProblem('mail-unavailable', 'This server sends no mail (SMTP_URL is not set), which this needs.');
}
