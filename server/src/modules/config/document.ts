import { z } from 'zod';
import { OPTIONS, type OptionDef } from '../options/registry.ts';

/**
 * The configuration file's shape (version 1): every option, typed by the option registry, and the channels,
 * keyed by name. This schema is what `docs/config.schema.json` is generated from (`npm run config -- schema`);
 * the channels' own rules (types, URLs, settings) are checked again by the channels module when planning.
 */

/** A secret given by reference: an environment variable, or a name in the secrets file. */
export const secretRef = z.union([
  z.string(),
  z.object({ env: z.string().min(1).describe('name of an environment variable holding the value') }).strict(),
  z
    .object({
      secret: z
        .string()
        .min(1)
        .describe('name of an entry in the secrets file (--secrets / CONFIG_SECRETS_FILE)'),
    })
    .strict(),
]);
export type SecretRef = z.infer<typeof secretRef>;

const jsonValue = z.union([
  z.record(z.string(), z.unknown()),
  z.array(z.unknown()),
  z.string(),
  z.number(),
  z.boolean(),
]);

function optionValue(def: OptionDef): z.ZodType {
  if (def.secret) return secretRef;
  switch (def.type) {
    case 'bool':
      return z.boolean();
    case 'int':
      return z.number().int();
    case 'float':
      return z.number();
    case 'json':
      return jsonValue;
    default:
      return z.string();
  }
}

export const optionsSchema = z
  .object(Object.fromEntries(Object.entries(OPTIONS).map(([k, def]) => [k, optionValue(def).optional()])))
  .strict()
  .describe('options by key; an option not named here is left as it is');

const jsonObject = z.record(z.string(), z.unknown());
const names = z.union([z.array(z.string()), z.string()]);

export const CHANNEL_STATUS = { enabled: 1, disabled: 2, auto_disabled: 3 } as const;

export const channelSchema = z
  .object({
    name: z.string().min(1).max(191).describe('unique in the file: the channel is matched by its name'),
    type: z.number().int().describe('channel type number (1 = OpenAI, 14 = Anthropic, 24 = Gemini ...)'),
    key: secretRef
      .optional()
      .describe('the key(s); left out, an existing channel keeps its key (a new channel needs one)'),
    base_url: z.string().optional(),
    models: names,
    groups: names.optional(),
    priority: z.number().int().optional(),
    weight: z.number().int().min(0).optional(),
    status: z.enum(['enabled', 'disabled', 'auto_disabled']).optional(),
    tag: z.string().optional(),
    auto_ban: z.boolean().optional(),
    model_mapping: jsonObject.optional(),
    status_code_mapping: jsonObject.optional(),
    setting: jsonObject.optional(),
    param_override: jsonObject.optional(),
    other: z.string().optional(),
    openai_organization: z.string().optional(),
    test_model: z.string().optional(),
    max_input_tokens: z.number().int().min(0).optional(),
  })
  .strict();
export type ChannelEntry = z.infer<typeof channelSchema>;

export const documentSchema = z
  .object({
    version: z.literal(1),
    options: optionsSchema.optional(),
    channels: z
      .array(channelSchema)
      .optional()
      .describe('when present, the whole list: a channel of the database not named here is deleted'),
  })
  .strict()
  .describe('ModelGate configuration (npm run config -- export | plan FILE | apply FILE)');
export type ConfigDocument = z.infer<typeof documentSchema>;

/** The JSON Schema published as docs/config.schema.json. */
export function configJsonSchema(): Record<string, unknown> {
  return {
    $id: 'https://github.com/modelgate/modelgate/docs/config.schema.json',
    title: 'ModelGate configuration',
    ...z.toJSONSchema(documentSchema, { io: 'input', target: 'draft-2020-12' }),
  };
}
