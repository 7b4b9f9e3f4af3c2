/**
 * Headers for responses that carry a bearer credential (an approval link's token, a
 * sign-in link, a session being set): never stored by a cache, never sent on as a referrer.
 */
export const NO_STORE = { "Cache-Control": "no-store" } as const;

export const NO_STORE_NO_REFERRER = { ...NO_STORE, "Referrer-Policy": "no-referrer" } as const;
