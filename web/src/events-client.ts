// The typed management client (src/client) for the dashboard's events pages, on this origin (the
// session cookie goes along by itself).
import { WaitlistClient } from '../../src/client/index.js';

let client: WaitlistClient | undefined;
export const eventsClient = () => (client ??= new WaitlistClient({ server: location.origin, userAgent: 'waitlist-dashboard' }));
