import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { SERVER_ENV, SERVER_NODE_FLAGS } from '../../scripts/server-runtime.mjs';

/**
 * The deployment files, checked without a container engine or a cluster (none runs here): the compose file
 * against the Compose Specification's schema, the Kubernetes objects against deploy/schemas/kubernetes-subset.json,
 * and what ties them to the server: the node flags, the probes' paths, the variables every replica must share.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const schema = (name: string) => JSON.parse(read(`deploy/schemas/${name}`));

/** `strict`: ajv's strict mode, for our own schema; the vendored compose schema is not written for it. */
function validator(name: string, strict: boolean) {
  const ajv = new Ajv({ allErrors: true, strict, allowUnionTypes: true });
  // Both schemas are draft-07, ajv's own; the compose schema names it by an https address ajv does not list.
  const { $schema: _, ...body } = schema(name);
  const validate = ajv.compile(body);
  return (doc: unknown) => {
    const ok = validate(doc);
    return ok
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
  };
}

describe('Dockerfile', () => {
  const lines = read('Dockerfile')
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages = lines.filter((l) => /^FROM /i.test(l));
  const last = lines.slice(lines.lastIndexOf(stages[stages.length - 1]));
  const instr = (name: string) => last.filter((l) => l.toUpperCase().startsWith(`${name} `));

  it('builds in one stage and runs the bundle as a non-root user with the production flags', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(instr('USER').at(-1)).toBe('USER node');
    const cmd = JSON.parse(instr('CMD').at(-1)!.slice(4));
    expect(cmd).toEqual(['node', ...SERVER_NODE_FLAGS, 'server/dist/main.js']);
    for (const [k, v] of Object.entries(SERVER_ENV)) expect(instr('ENV').join(' ')).toContain(`${k}=${v}`);
    expect(instr('HEALTHCHECK').join(' ')).toContain('/healthz');
    // The final stage copies only what the build stage assembled: bundle, console and run-time packages.
    expect(instr('COPY')).toEqual(['COPY --from=build /image/ ./']);
  });

  it('copies only files that exist and that .dockerignore lets through', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const sources = lines
      .filter((l) => /^COPY /i.test(l) && !l.includes('--from='))
      .flatMap((l) => l.split(/\s+/).slice(1, -1));
    expect(sources.length).toBeGreaterThan(3);
    for (const src of sources) {
      if (src === '.') continue;
      expect(existsSync(join(ROOT, src)), src).toBe(true);
      expect(
        ignored.some((p) => src === p || src.startsWith(`${p}/`)),
        src,
      ).toBe(false);
    }
    // What the image builds itself, and local state, never enter the build context.
    for (const p of ['.git', '**/node_modules', '**/dist', 'data', 'e2e/artifacts'])
      expect(ignored).toContain(p);
  });

  it('npm start uses the same flags and environment', () => {
    const start = JSON.parse(read('package.json')).scripts.start as string;
    expect(start).toContain(`exec node ${SERVER_NODE_FLAGS.join(' ')} scripts/start.mjs`);
    for (const [k, v] of Object.entries(SERVER_ENV)) expect(start).toContain(`${k}=\${${k}:-${v}}`);
  });
});

describe('deploy/compose.yaml', () => {
  const compose = parse(read('deploy/compose.yaml'), { merge: true });

  it('is valid against the Compose Specification schema', () => {
    const validate = validator('compose-spec.json', false);
    expect(validate(compose)).toEqual([]);
    // The schema does refuse what compose would refuse.
    const typo = structuredClone(compose);
    typo.services.redis.helthcheck = typo.services.redis.healthcheck;
    expect(validate(typo)).not.toEqual([]);
    const badDepends = structuredClone(compose);
    badDepends.services['gateway-slave'].depends_on = 'gateway-master';
    expect(validate(badDepends)).not.toEqual([]);
  });

  it('runs PostgreSQL, Redis, one master and two slaves, each with a health check', () => {
    const s = compose.services;
    expect(Object.keys(s).sort()).toEqual(['gateway-master', 'gateway-slave', 'postgres', 'redis']);
    for (const [name, svc] of Object.entries<any>(s)) expect(svc.healthcheck?.test, name).toBeTruthy();
    expect(s['gateway-master'].environment.NODE_TYPE).toBe('master');
    expect(s['gateway-slave'].environment.NODE_TYPE).toBe('slave');
    expect(s['gateway-slave'].deploy.replicas).toBe(2);
    expect(s['gateway-slave'].depends_on['gateway-master'].condition).toBe('service_healthy');
    expect(s['gateway-master'].depends_on.postgres.condition).toBe('service_healthy');
    expect(s['gateway-master'].depends_on.redis.condition).toBe('service_healthy');
    expect(s.postgres.volumes[0]).toMatch(/^postgres-data:/);
    expect(s.redis.volumes[0]).toMatch(/^redis-data:/);
    expect(Object.keys(compose.volumes).sort()).toEqual(['postgres-data', 'redis-data']);
  });

  it('gives every gateway the same secrets, database and Redis, and requires the secrets to be set', () => {
    const env = ['gateway-master', 'gateway-slave'].map((n) => compose.services[n].environment);
    for (const key of ['SESSION_SECRET', 'CRYPTO_SECRET', 'SQL_DSN', 'REDIS_CONN_STRING', 'TZ'])
      expect(env[0][key], key).toBe(env[1][key]);
    expect(env[0].SESSION_SECRET).toMatch(/^\$\{SESSION_SECRET:\?/);
    expect(env[0].CRYPTO_SECRET).toMatch(/^\$\{CRYPTO_SECRET:\?/);
    expect(env[0].SQL_DSN).toMatch(/^postgres:\/\/modelgate:.*@postgres:5432\/modelgate$/);
    expect(env[0].REDIS_CONN_STRING).toBe('redis://redis:6379');
    // Every variable the file reads is in the example .env.
    const example = read('deploy/.env.example');
    for (const [, name] of read('deploy/compose.yaml').matchAll(/\$\{([A-Z_]+)[:}]/g))
      expect(example, name).toMatch(new RegExp(`^${name}=`, 'm'));
  });
});

describe('deploy/kubernetes', () => {
  const dir = join(ROOT, 'deploy/kubernetes');
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  const objects = files.flatMap((f) =>
    parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => ({ file: f, obj: d.toJS() as any })),
  );
  const byKind = (kind: string) => objects.filter((o) => o.obj.kind === kind).map((o) => o.obj);
  const [master] = byKind('Deployment').filter((d) => d.metadata.name === 'modelgate-master');
  const [slaves] = byKind('Deployment').filter((d) => d.metadata.name === 'modelgate');
  const container = (d: any) => d.spec.template.spec.containers[0];
  const env = (d: any) => Object.fromEntries(container(d).env.map((e: any) => [e.name, e.value]));

  it('every object is valid against the schema of the fields it may use', () => {
    const validate = validator('kubernetes-subset.json', true);
    for (const { file, obj } of objects) expect(validate(obj), file).toEqual([]);
    const typo = structuredClone(master);
    typo.spec.template.spec.containers[0].readinesProbe =
      typo.spec.template.spec.containers[0].readinessProbe;
    expect(validate(typo)).not.toEqual([]);
    const misplaced = structuredClone(master);
    misplaced.spec.template.spec.envFrom = misplaced.spec.template.spec.containers[0].envFrom;
    expect(validate(misplaced)).not.toEqual([]);
  });

  it('lists every manifest in the kustomization', () => {
    const [k] = byKind('Kustomization');
    expect([...k.resources].sort()).toEqual(files.filter((f) => f !== 'kustomization.yaml').sort());
  });

  it('has one master that is never doubled, and slaves that roll', () => {
    expect(master.spec.replicas).toBe(1);
    expect(master.spec.strategy.type).toBe('Recreate');
    expect(env(master).NODE_TYPE).toBe('master');
    expect(env(slaves).NODE_TYPE).toBe('slave');
    expect(slaves.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(slaves.spec.strategy.type).toBe('RollingUpdate');
  });

  it('wires the Service, probes, environment and shutdown together', () => {
    const [service] = byKind('Service');
    const [config] = byKind('ConfigMap');
    const [secret] = byKind('Secret');
    for (const d of [master, slaves]) {
      const labels = d.spec.template.metadata.labels;
      for (const [k, v] of Object.entries(d.spec.selector.matchLabels)) expect(labels[k]).toBe(v);
      for (const [k, v] of Object.entries(service.spec.selector))
        expect(labels[k], 'service selects the pods').toBe(v);
      const c = container(d);
      const portName = c.ports[0].name;
      expect(service.spec.ports[0].targetPort).toBe(portName);
      expect(String(c.ports[0].containerPort)).toBe(config.data.PORT);
      expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: portName });
      expect(c.startupProbe.httpGet).toEqual({ path: '/healthz', port: portName });
      expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: portName });
      expect(c.envFrom).toEqual([
        { configMapRef: { name: config.metadata.name } },
        { secretRef: { name: secret.metadata.name } },
      ]);
      // The pause before SIGTERM, the requests in flight and the final flush fit in the grace period.
      const preStop = Number(c.lifecycle.preStop.exec.command[1]);
      expect(d.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(
        preStop + Number(config.data.SHUTDOWN_TIMEOUT) + 5,
      );
      expect(d.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
      expect(c.image).toBe(master.spec.template.spec.containers[0].image);
    }
    // The secrets every replica must share come from the one Secret.
    for (const key of ['SESSION_SECRET', 'CRYPTO_SECRET', 'SQL_DSN', 'REDIS_CONN_STRING'])
      expect(Object.keys(secret.stringData)).toContain(key);
    const note = read('deploy/kubernetes/README.md');
    for (const key of ['SESSION_SECRET', 'CRYPTO_SECRET']) expect(note).toContain(`\`${key}\``);
  });
});
