/**
 * The OpenAPI 3.1 document is generated from the same zod schemas that validate requests:
 * every route registers itself here through `defineRoute` (api/http/route.ts).
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { createRequire } from 'node:module';

// createRequire: JSON import attributes are not yet understood by every tool in the chain (jest).
const pkg = createRequire(import.meta.url)('../../package.json') as { version: string };

extendZodWithOpenApi(z);

export const registry = new OpenAPIRegistry();

export const ErrorBody = registry.register(
  'Error',
  z
    .object({
      error: z.string().openapi({ example: 'bad_request' }),
      message: z.string().openapi({ example: 'Cererea nu este validă.' }),
      hint: z.string().optional(),
      details: z.any().optional(),
    })
    .openapi({ description: 'Error body of every route (CONTRACT.md section 1)' }),
);

registry.registerComponent('securitySchemes', 'session', {
  type: 'apiKey',
  in: 'cookie',
  name: 'cgp_session',
});
registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });

let cached: unknown;
export function openApiDocument(): unknown {
  cached ??= new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Geoportal cadastral — API',
      version: pkg.version,
      description:
        'Cadastral geoportal and parcel data service. Errors use the body `{error, message, hint?, details?}`.',
    },
    servers: [{ url: '/' }],
  });
  return cached;
}
