/** The AI chat's pure rules, importable from anywhere: the limits of a question (the route's schema cites them). */
export { CHAT_LIMITS } from './prompt';
