/** The storage area's pure rules, importable from anywhere: the download name of a file. */
export { contentDisposition } from './contentDisposition';
