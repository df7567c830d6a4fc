/** The tag manager's pure rules (docs/office.md "Tag sync"): the module's version the system route reports. */

export const TAGS_MODULE_VERSION = '0.2.0'; // spec 9.5
