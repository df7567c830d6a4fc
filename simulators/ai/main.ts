/** CLI: `npx tsx simulators/ai/main.ts` starts the AI providers simulator (OpenAI, Anthropic, Ollama protocols). */
import pino from 'pino';
import { simSettings } from '../shared/settings';
import { startAiSimulator } from './server';

const log = pino({ name: 'ai-sim', level: simSettings.logLevel });
const sim = await startAiSimulator({ port: simSettings.ai.port });
log.info({ url: sim.url }, `AI providers simulator listening on ${sim.url}`);

const stop = async () => {
  await sim.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
