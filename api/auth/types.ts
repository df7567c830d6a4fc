/** The session a signed-in request carries (domain/auth/sessionContext.ts), on Express's request. */
import type { SessionContext } from '../../domain/auth/rules';

declare module 'express-serve-static-core' {
  interface Request {
    auth?: SessionContext;
  }
}
