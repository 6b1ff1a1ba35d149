import { z } from 'zod';

/** The web dashboard the host serves on its loopback listener at `/ui` (docs/dashboard.md). */
export const dashboardConfigSchema = z
  .object({
    /**
     * On by default: it is only served on loopback, and only to someone who holds the operator
     * token, so it adds no way in that the CLI does not already have. Off for a host that should
     * answer no browser at all.
     */
    enabled: z.boolean().default(true),
    /**
     * How long a sign-in lasts without use being needed: a working day (12 h), so an operator signs
     * in once a day, and a browser left signed in on a shared machine does not stay so for weeks.
     */
    session_ttl_minutes: z.number().int().min(5).max(10_080).default(720),
    /**
     * More names the browser may use for the host (the `Host` and `Origin` it sends), e.g. a name
     * in /etc/hosts that points at 127.0.0.1. `localhost`, `127.0.0.1` and `[::1]` with the mesh
     * port are always allowed; any other name is refused, so a DNS-rebinding page cannot talk to it.
     */
    allowed_hosts: z
      .array(z.string().regex(/^[a-z0-9.-]+(:\d+)?$/i, 'a host name, optionally with :port'))
      .max(20)
      .default([]),
  })
  .strict();
export type DashboardConfig = z.infer<typeof dashboardConfigSchema>;
