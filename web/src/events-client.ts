// The dashboard's events pages (Webhooks, Email) use the one shared client of api.ts: same origin and
// session cookie, and a 401 sends the user back to the login page like every other tab.
import { api } from './api.js';

export const eventsClient = () => api;
