import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import auditFeature from './audit/routes.ts';
import { emailFeature } from './auth/email-routes.ts';
import { oauthFeature } from './auth/oauth/routes.ts';
import { authFeature } from './auth/routes.ts';
import budgetsFeature from './budgets/routes.ts';
import compatFeature from './channels/compat/routes.ts';
import channelsFeature from './channels/routes.ts';
import configFeature from './config/routes.ts';
import contentFeature from './content/routes.ts';
import dataFeature from './data/routes.ts';
import { groupsFeature } from './groups/routes.ts';
import { logsFeature } from './logs/routes.ts';
import marginFeature from './margin/routes.ts';
import midjourneyFeature from './midjourney/routes.ts';
import { optionsFeature } from './options/routes.ts';
import pricingFeature from './pricing/routes.ts';
import { redemptionsFeature } from './redemptions/routes.ts';
import retentionFeature from './retention/routes.ts';
import settingsFeature from './settings/routes.ts';
import { setupFeature } from './setup/routes.ts';
import { statusFeature } from './status/routes.ts';
import tasksFeature from './tasks/routes.ts';
import tokensFeature from './tokens/routes.ts';
import { topupFeature } from './topup/routes.ts';
import { adminUsersFeature } from './users/admin-routes.ts';
import { selfFeature } from './users/self-routes.ts';

/** A console feature: registers its /api routes. One line per feature in FEATURES below. */
export type Feature = (app: FastifyInstance, ctx: AppContext) => Promise<void> | void;

export const FEATURES: Feature[] = [
  authFeature,
  selfFeature,
  oauthFeature,
  emailFeature,
  groupsFeature,
  adminUsersFeature,
  statusFeature,
  setupFeature,
  optionsFeature,
  pricingFeature,
  dataFeature,
  midjourneyFeature,
  tasksFeature,
  contentFeature,
  settingsFeature,
  redemptionsFeature,
  topupFeature,
  logsFeature,
  marginFeature,
  retentionFeature,
  tokensFeature,
  channelsFeature,
  compatFeature,
  budgetsFeature,
  auditFeature,
  configFeature,
];
