/**
 * The workflows held to the signatures their starters are typed by (domain/jobWorkflows.ts): the
 * client side no longer reads them from here (temporal/ imports nothing of workflows/), so a
 * workflow whose input or result drifts from the table's, or one the table names that is not
 * registered, fails to compile here. Types only: nothing imports this module.
 */
import type { JobWorkflows } from '../domain/jobWorkflows';
import type * as workflows from './index';

type Conforms<T extends U, U> = T;

export type RegisteredJobWorkflows = Conforms<Pick<typeof workflows, keyof JobWorkflows>, JobWorkflows>;
