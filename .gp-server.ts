// Scratch server for the geoportal engineer's local UI iteration (deleted afterwards).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import express from 'express';
import { createRequestHandler } from '@remix-run/express';
import { createApp } from './api/app';
import { pageGuard } from './api/auth';
const dir = path.resolve('build-gp');
const build = await import(pathToFileURL(path.join(dir, 'server', 'index.js')).href);
const statics = express.Router();
statics.use('/assets', express.static(path.join(dir, 'client', 'assets')));
statics.use(express.static(path.join(dir, 'client'), { index: false }));
const remix = createRequestHandler({ build, mode: 'production', getLoadContext: (req) => ({ auth: req.auth }) });
createApp({ web: [pageGuard, statics, remix] }).listen(3300, () => console.log('gp on 3300'));
