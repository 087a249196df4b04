import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseServiceAccount } from '../src/relay/providers/vertex/key.ts';
import { familyOf, regionOf, vertexClaudeId } from '../src/relay/providers/vertex/models.ts';

/** Google Vertex AI's pure parts: service-account keys, Vertex ids of Anthropic names, regions. */
describe('vertex: keys, model ids and regions', () => {
  it('reads a service account, defaulting token_uri', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const sa = parseServiceAccount(
      JSON.stringify({
        client_email: 'a@p.iam.gserviceaccount.com',
        private_key: pem,
        project_id: 'my-proj-1',
      }),
    );
    expect(sa.tokenUri).toBe('https://oauth2.googleapis.com/token');
    expect(sa.projectId).toBe('my-proj-1');
    const escaped = parseServiceAccount(
      JSON.stringify({
        client_email: 'a@p.iam.gserviceaccount.com',
        private_key: pem.replace(/\n/g, '\\n'),
        project_id: 'my-proj-1',
      }),
    );
    expect(escaped.privateKey.asymmetricKeyType).toBe('rsa');
    expect(() =>
      parseServiceAccount(JSON.stringify({ client_email: 'a@b', private_key: pem, project_id: 'p/../x' })),
    ).toThrow(/project_id is not a Google Cloud project id/);
  });

  it('maps Anthropic names to Vertex ids and tells model families apart', () => {
    expect(vertexClaudeId('claude-3-5-sonnet-20241022')).toBe('claude-3-5-sonnet-v2@20241022');
    expect(vertexClaudeId('claude-3-5-sonnet-20240620')).toBe('claude-3-5-sonnet@20240620');
    expect(vertexClaudeId('claude-opus-4-1-20250805')).toBe('claude-opus-4-1@20250805');
    expect(vertexClaudeId('claude-haiku-4-5@20251001')).toBe('claude-haiku-4-5@20251001');
    expect(vertexClaudeId('claude-sonnet-4-5')).toBe('claude-sonnet-4-5');
    expect(familyOf('claude-sonnet-4-5')).toBe('claude');
    expect(familyOf('gemini-2.5-pro')).toBe('gemini');
    expect(familyOf('text-embedding-005')).toBe('embedding');
    expect(familyOf('gemini-embedding-001')).toBe('embedding');
  });

  it('reads the region from the setting, per model, then from other, then global', () => {
    expect(regionOf(undefined, '', ['m'])).toBe('global');
    expect(regionOf('europe-west1', '', ['m'])).toBe('europe-west1');
    expect(regionOf({ default: 'us-central1', m: 'us-east5' }, '', ['m'])).toBe('us-east5');
    expect(regionOf('{"default":"asia-northeast1"}', '', ['m'])).toBe('asia-northeast1');
    expect(regionOf(undefined, 'us-east5', ['m'])).toBe('us-east5');
    expect(regionOf(undefined, '{"x":"us-east5","default":"europe-west4"}', ['m'])).toBe('europe-west4');
    expect(regionOf('evil.example.com/', '', ['m'])).toBeNull();
  });
});
