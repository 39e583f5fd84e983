'use strict';
/** The support library, compiled (see scripts/support.js). */
module.exports = require('../scripts/support');
