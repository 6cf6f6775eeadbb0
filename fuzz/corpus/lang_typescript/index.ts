import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { User } from './types/User';
import { countDeclarations, formatDuration, toJsonText } from './utils/helpers';
import { AuthService } from './services/AuthService';
import { createUserApi, matchRoute } from './api/userRoutes';

interface ServerOptions {
  name?: string; // reported to MCP clients.
  version?: string; // defaults to the package version.
  /** Users (with their plain-text passwords) to create before the server starts answering requests. */
  seedUsers?: Array<{ user: User; password: string }>;
}

type ToolResult = { content: Array<{ type: 'text'; text: string }>; isError?: boolean };

const TOOLS = [
  {
    name: 'login',
    description: 'Sign a user in with e-mail address and password. Returns a session token valid for eight hours.',
    inputSchema: {
      type: 'object',
      properties: {
        email: { type: 'string', description: 'E-mail address the account was registered with (case-insensitive).' },
        password: { type: 'string', description: 'Plain-text password. It is hashed and compared, never stored.' },
      },
      required: ['email', 'password'],
    },
  },
  {
    name: 'logout',
    description: 'End the session that belongs to the given token. Unknown tokens are ignored.',
    inputSchema: {
      type: 'object',
      properties: { token: { type: 'string', description: 'Session token previously returned by the login tool.' } },
      required: ['token'],
    },
  },
  {
    name: 'call_api',
    description: 'Call the user REST API (list, show, create and delete users). Requires a valid session token.',
    inputSchema: {
      type: 'object',
      properties: {
        token: { type: 'string', description: 'Session token previously returned by the login tool.' },
        method: { type: 'string', enum: ['GET', 'POST', 'DELETE'], description: 'HTTP method of the request.' },
        path: { type: 'string', description: 'Request path such as /users or /users/42 (no query string).' },
        body: { type: 'object', description: 'JSON body for POST requests, e.g. { name, email, password }.' },
      },
      required: ['token', 'method', 'path'],
    },
  },
  {
    name: 'count_declarations',
    description: 'Count the top-level functions, classes, interfaces, types and enums of a TypeScript source.',
    inputSchema: {
      type: 'object',
      properties: {
        fileName: { type: 'string', description: 'File name, used to pick TS or TSX parsing (e.g. a.tsx).' },
        source: { type: 'string', description: 'Full source text of the file to analyze, as UTF-8 text.' },
      },
      required: ['fileName', 'source'],
    },
  },
] as const;

const text = (value: unknown, isError = false): ToolResult => ({
  content: [{ type: 'text', text: typeof value === 'string' ? value : toJsonText(value) }],
  isError,
});

/** Starts the MCP server on stdio; resolves once connected, then runs until the client disconnects. */
export async function startServer(options: ServerOptions = {}): Promise<Server> {
  const startedAt = Date.now();
  const api = createUserApi();
  const auth = new AuthService(api.service);
  for (const { user, password } of options.seedUsers ?? []) {
    await api.service.createUser(user, password);
  }

  const info = { name: options.name ?? 'user-directory', version: options.version ?? '0.3.0' };
  const server = new Server(info, { capabilities: { tools: {} } });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...TOOLS] }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<ToolResult> => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    switch (request.params.name) {
      case 'login': {
        const session = await auth.login(String(args.email), String(args.password));
        if (session) return text(session);
        return text('Invalid e-mail address or password (the reply never says which of the two was wrong).', true);
      }
      case 'logout':
        return text({ loggedOut: auth.logout(String(args.token)) });
      case 'call_api': {
        if (!auth.resolve(String(args.token))) {
          return text('The session token is unknown or has expired; call the login tool first.', true);
        }
        const match = matchRoute(api.routes, String(args.method), String(args.path));
        if (!match) return text(`No route for ${String(args.method)} ${String(args.path)}; try GET /users.`, true);
        const response = await match.route.handler(match.params, args.body);
        return text(response, response.status >= 400);
      }
      case 'count_declarations':
        return text(countDeclarations(String(args.fileName), String(args.source)));
      default:
        return text(`Unknown tool: ${request.params.name}. Use tools/list to see what the server offers.`, true);
    }
  });

  await server.connect(new StdioServerTransport());
  console.error(`[${info.name}] ready in ${formatDuration(Date.now() - startedAt)} with ${TOOLS.length} tools`);
  return server;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  startServer().catch((error: unknown) => void (console.error(error), process.exit(1)));
}
