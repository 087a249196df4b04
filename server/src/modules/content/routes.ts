import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { ok } from '../../infra/envelope.ts';

/** Public texts the admin writes in the "other" settings: notice, about, home page (markdown, HTML or a URL). */
export default function contentFeature(app: FastifyInstance, ctx: AppContext) {
  app.get('/notice', async () => ok(ctx.options.get('Notice')));
  app.get('/about', async () => ok(ctx.options.get('About')));
  app.get('/home_page_content', async () => ok(ctx.options.get('HomePageContent')));
}
