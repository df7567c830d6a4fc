/** CLI: `npx tsx simulators/ai/main.ts` starts the AI providers simulator (OpenAI, Anthropic, Ollama protocols). */
import pino from 'pino';
import { config } from '../../domain/config';
import { startAiSimulator } from './server';

const log = pino({ name: 'ai-sim', level: config.logLevel });
const sim = await startAiSimulator({ port: config.ai.simPort });
log.info({ url: sim.url }, `AI providers simulator listening on ${sim.url}`);

const stop = async () => {
  await sim.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
