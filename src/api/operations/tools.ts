import { operation } from '../operation.js';
import { toolRows } from '../operation-table/tools.js';

export const getMcpToolCatalog = () => operation(toolRows, 'getMcpToolCatalog');
