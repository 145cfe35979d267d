/** The page's entry: bundled by `npm run build` into `dist/page/controller.js`, which the daemon serves as `/controller.js`. */
import "./wiring.js"
