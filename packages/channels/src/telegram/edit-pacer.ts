export { EDIT_INTERVAL_MS, EditPacer } from '../core/edit-pacer.js';
