export { loadSkills, type Skill, type SkillRoot, type SkillSnapshot } from './skill-catalog.js';
export { currentSkillHost, ineligibleReason, type SkillHost } from './skill-eligibility.js';
export { readSkillFolder, SKILL_MAX_FILES, SKILL_MD_MAX_BYTES, type SkillFolder } from './skill-folder.js';
export { parseSkillMd, SKILL_NAME_PATTERN, skillFrontmatterSchema } from './skill-frontmatter.js';
export { bundledSkillsDir, FLEET_SKILLS_ENV, skillRoots } from './skill-roots.js';
export { type SkillSourceOptions, skillSource } from './skill-source.js';
export { createSkillViewTool } from './skill-view-tool.js';
export { skillsPrompt } from './skills-prompt.js';
export { skillsRoutes } from './skills-routes.js';
