/**
 * The outside door's pure rules, shared by the API and the pages.
 */

/** Who a cap counts when a user is signed in, the same key for an API route and a page (`u:<user id>`). */
export const callerKeyOf = (userId: string): string => `u:${userId}`;
